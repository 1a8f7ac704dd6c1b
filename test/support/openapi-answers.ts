import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type JsonSchema = Record<string, unknown>;

export interface DocumentedOperation {
  method: string;
  /** OpenAPI form: /v1/customers/{customer_id} */
  path: string;
  operation: {
    operationId: string;
    parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>;
    requestBody?: { content: Record<string, { schema: JsonSchema }> };
    responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  };
  pattern: RegExp;
}

export interface LiveAnswer {
  method: string;
  /** The request's path as sent (percent-encoded, without the query). */
  path: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

/**
 * Checks live answers against the service's own OpenAPI document (GET /openapi.json): the status must
 * be one the operation documents and the body must validate against that response's schema (JSON
 * Schema 2020-12, as OpenAPI 3.1 says). A request no operation matches must get the envelope error
 * form with 404 (or 400 when its path could not even be decoded).
 */
export class OpenApiAnswers {
  readonly operations: DocumentedOperation[];
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  private readonly compiled = new WeakMap<JsonSchema, ValidateFunction>();
  private readonly unmatchedError: JsonSchema;

  constructor(document: { paths: Record<string, Record<string, DocumentedOperation["operation"]>> }) {
    addFormats.default(this.ajv);
    this.operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        operation,
        pattern: templatePattern(path),
      })),
    );
    const envelopeError = this.operations
      .map((o) => o.operation.responses["404"]?.content?.["application/json"]?.schema)
      .find((schema) => schema && (schema.required as string[] | undefined)?.includes("status"));
    if (!envelopeError) throw new Error("the document shows no envelope error form");
    this.unmatchedError = envelopeError;
  }

  /** The operation a request goes to, as the router matches (any case, optional trailing slash). */
  operationOf(method: string, path: string): DocumentedOperation | undefined {
    const wanted = method === "HEAD" ? "GET" : method;
    return this.operations.find((o) => o.method === wanted && o.pattern.test(path));
  }

  /** What is wrong with the answer, or undefined when the document allows it. */
  problemWith(answer: LiveAnswer): string | undefined {
    const operation = this.operationOf(answer.method, answer.path);
    if (!operation) {
      if (answer.status !== 404 && answer.status !== 400) return `undocumented request answered ${answer.status}`;
      return this.bodyProblem(this.unmatchedError, answer);
    }
    const response = operation.operation.responses[String(answer.status)];
    if (!response) return `${operation.operation.operationId} does not document status ${answer.status}`;
    const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
    if (!mediaType || !media) return answer.body === "" ? undefined : "a body where the document shows none";
    if (!answer.contentType?.startsWith(mediaType))
      return `content type ${answer.contentType}, documented ${mediaType}`;
    if (mediaType !== "application/json") return typeof answer.body === "string" ? undefined : "no text body";
    return this.bodyProblem(media.schema, answer);
  }

  private bodyProblem(schema: JsonSchema, answer: LiveAnswer): string | undefined {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return "a body that is not JSON";
    }
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    if (validate(body)) return undefined;
    return `body does not match the document: ${this.ajv.errorsText(validate.errors)}`;
  }
}

function templatePattern(path: string): RegExp {
  const segments = path
    .split("/")
    .map((segment) => (/^\{\w+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${segments.join("/")}/?$`, "i");
}

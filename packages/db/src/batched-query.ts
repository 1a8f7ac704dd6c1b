/// <reference path="./pg-utils.d.ts" />
import pg from "pg";
// pg's own mapping of parameters to the wire (Date, Buffer, arrays, objects), as its Query binds them.
import pgUtils from "pg/lib/utils.js";

type Settle = (error: Error | null, result?: pg.QueryResult) => void;

/** What a batched query carries: its text, its parameters, and a statement name to prepare it under. */
export interface BatchedQueryConfig {
  text: string;
  values?: unknown[] | undefined;
  name?: string | undefined;
}

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format: string;
}

/**
 * The parts of pg's Query and Result (pg 8) a statement's row shape is kept from: the field
 * descriptions, one type parser per field, and the row every parsed row starts as a copy of.
 * packages/db/test/batched-queries.test.ts fails if a pg upgrade renames them.
 */
interface PgQueryInternals {
  name?: string;
  values?: unknown[];
  portal: string;
  binary?: boolean;
  rows?: number;
  _accumulateRows?: boolean;
  hasBeenParsed(connection: PgConnection): boolean;
  _getRows(connection: PgConnection, rows: number | undefined): void;
  handleError(error: unknown, connection: PgConnection): void;
  _result: {
    fields: FieldDescription[];
    _parsers: unknown[];
    _prebuiltEmptyResultObject: object;
  };
}

/** The messages of pg's Connection a query without Describe sends. */
interface PgConnection {
  bind(config: {
    portal: string;
    statement: string | undefined;
    values: unknown[] | undefined;
    binary: boolean | undefined;
    valueMapper: unknown;
  }): void;
  close(config: { type: "S"; name: string | undefined }): void;
  sync(): void;
}

interface RowShape {
  fields: FieldDescription[];
  parsers: unknown[];
  emptyRow: object;
}

/**
 * By connection, then statement name: a statement prepared on a connection describes the same row
 * every time (else PostgreSQL refuses to run it). Per connection, not per process: one process may
 * reach several databases (the tests' do) whose schemas differ under the same statement name.
 */
const rowShapesByConnection = new WeakMap<PgConnection, Map<string, RowShape>>();

function rowShapesOf(connection: PgConnection): Map<string, RowShape> {
  let shapes = rowShapesByConnection.get(connection);
  if (!shapes) {
    shapes = new Map();
    rowShapesByConnection.set(connection, shapes);
  }
  return shapes;
}

const sameFields = (a: FieldDescription[], b: FieldDescription[]): boolean =>
  a.length === b.length &&
  a.every((field, i) => {
    const other = b[i] as FieldDescription;
    return field.name === other.name && field.dataTypeID === other.dataTypeID && field.format === other.format;
  });

// pg's constructor takes (text, values, callback); its types know only (text, values).
const PgQuery = pg.Query as unknown as new (
  text: string,
  values: unknown[] | undefined,
  callback: Settle,
) => pg.Query & {
  handleRowDescription(message: { fields: FieldDescription[] }): void;
  prepare(connection: PgConnection): void;
};

/**
 * A named statement's query keeps the type parsers and the empty row pg builds from its row
 * description, and reuses them for every later run with the same fields: pg builds them anew for
 * each query (5 us of an authenticated read's ~180 us of main-thread CPU, with a null-prototype
 * object per query). Once the statement is parsed on the connection and its row is known, it is run
 * without asking the server to describe it again (Bind, Execute, Sync: no RowDescription built,
 * sent and parsed per query). The row cannot have changed under it: shapes are kept per connection,
 * and a prepared statement whose result type changes is refused by the server ("cached plan must
 * not change result type").
 */
class BatchedQuery extends PgQuery {
  /** The row shapes of the connection this query was sent on (set when it is sent, before any answer). */
  private shapes: Map<string, RowShape> | undefined;

  override prepare(connection: PgConnection): void {
    const self = this as unknown as PgQueryInternals;
    this.shapes = rowShapesOf(connection);
    const shape = self.name === undefined ? undefined : this.shapes.get(self.name);
    if (!shape || !self.hasBeenParsed(connection)) {
      super.prepare(connection);
      return;
    }
    this.takeShape(shape);
    // As pg's Query.prepare from here, less the Describe.
    try {
      connection.bind({
        portal: self.portal,
        statement: self.name,
        values: self.values,
        binary: self.binary,
        valueMapper: pgUtils.prepareValue,
      });
    } catch (error) {
      connection.close({ type: "S", name: self.name });
      connection.sync();
      self.handleError(error, connection);
      return;
    }
    self._getRows(connection, self.rows);
  }

  override handleRowDescription(message: { fields: FieldDescription[] }): void {
    const self = this as unknown as PgQueryInternals;
    const name = self.name;
    const shape = name === undefined ? undefined : this.shapes?.get(name);
    if (shape && sameFields(shape.fields, message.fields)) {
      this.takeShape(shape);
      return;
    }
    super.handleRowDescription(message);
    if (name !== undefined && this.shapes) {
      const { fields, _parsers, _prebuiltEmptyResultObject } = self._result;
      this.shapes.set(name, { fields, parsers: _parsers, emptyRow: _prebuiltEmptyResultObject });
    }
  }

  /** What pg's handleRowDescription sets up for the rows to come, from the statement's known shape. */
  private takeShape(shape: RowShape): void {
    const self = this as unknown as PgQueryInternals;
    const result = self._result;
    result.fields = shape.fields;
    result._parsers = shape.parsers;
    result._prebuiltEmptyResultObject = shape.emptyRow;
    // As pg decides for a query answered through its callback: its rows are collected.
    self._accumulateRows = true;
  }
}

/**
 * One query of a batch (batched-queries.ts) as pg's own Query, made without two costs of
 * `client.query(config)` on a plain config object, measured on the authenticated read at 9 us of
 * its ~180 us of main-thread CPU: pg clones the config through property descriptors (4 us), and
 * wraps the result in a promise with a `catch` that re-captures the stack of every error. Here the
 * text goes to the constructor as a string (pg copies no config), the name is set after, and the
 * answer comes back through the callback (`settle` must take only the first: batched-queries.ts).
 */
export function batchedQuery(config: BatchedQueryConfig, settle: Settle): pg.Query {
  const query = new BatchedQuery(config.text, config.values, settle);
  if (config.name !== undefined) (query as unknown as PgQueryInternals).name = config.name;
  return query;
}

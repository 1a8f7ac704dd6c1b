import { NotFoundError } from "@mp/core";
import { paginationQuery } from "../http/pagination.ts";
import { defineRoute } from "../http/route.ts";
import { pageSchema } from "../openapi/page-schema.ts";
import { createCustomerBody, customerIdParams, customerResource, listCustomersQuery } from "./customer-schemas.ts";
import { findCustomer, insertCustomer, listCustomers } from "./customer-store.ts";
import { PROVISION_CUSTOMER_JOB } from "./provision-customer-job.ts";

export const createCustomerRoute = defineRoute({
  method: "post",
  path: "/v1/customers",
  operationId: "createCustomer",
  summary: "Create a customer; its verification profile is provisioned asynchronously (202, status PROVISIONING)",
  tag: "Customers",
  auth: true,
  idempotent: true,
  body: createCustomerBody,
  response: customerResource,
  successStatus: 202,
  errorStatuses: [409, 503],
  async handler({ merchant, body, sql, deps, idempotencyKey }) {
    const customer = await insertCustomer(sql, merchant.merchantId, body, idempotencyKey);
    // Enqueued in the same transaction: the job exists exactly when the customer does.
    await deps.jobs.send(PROVISION_CUSTOMER_JOB, { customerId: customer.id }, { client: sql });
    return { status: 202, data: customer, message: "Customer created; verification profile is being provisioned" };
  },
});

export const listCustomersRoute = defineRoute({
  method: "get",
  path: "/v1/customers",
  operationId: "listCustomers",
  summary: "List customers, newest first",
  tag: "Customers",
  auth: true,
  query: paginationQuery.extend(listCustomersQuery.shape),
  response: pageSchema(customerResource),
  successStatus: 200,
  async handler({ merchant, query, sql }) {
    return { status: 200, data: await listCustomers(sql, merchant.merchantId, query) };
  },
});

export const getCustomerRoute = defineRoute({
  method: "get",
  path: "/v1/customers/{customer_id}",
  operationId: "getCustomer",
  summary: "Retrieve one customer",
  tag: "Customers",
  auth: true,
  params: customerIdParams,
  response: customerResource,
  successStatus: 200,
  errorStatuses: [404],
  async handler({ merchant, params, sql }) {
    const customer = await findCustomer(sql, merchant.merchantId, params.customer_id);
    if (!customer) throw new NotFoundError("Customer");
    return { status: 200, data: customer };
  },
});

export const customerRoutes = [createCustomerRoute, listCustomersRoute, getCustomerRoute];

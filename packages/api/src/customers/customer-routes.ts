import { paginationQuery } from "../http/pagination.ts";
import { defineGetRoute, defineListRoute } from "../http/read-routes.ts";
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

export const listCustomersRoute = defineListRoute({
  path: "/v1/customers",
  operationId: "listCustomers",
  summary: "List customers, newest first",
  tag: "Customers",
  query: paginationQuery.extend(listCustomersQuery.shape),
  response: pageSchema(customerResource),
  list: ({ merchant, query, sql }) => listCustomers(sql, merchant.merchantId, query),
});

export const getCustomerRoute = defineGetRoute({
  path: "/v1/customers/{customer_id}",
  operationId: "getCustomer",
  summary: "Retrieve one customer",
  tag: "Customers",
  params: customerIdParams,
  response: customerResource,
  errorStatuses: [404],
  notFound: "Customer",
  find: ({ merchant, params, sql }) => findCustomer(sql, merchant.merchantId, params.customer_id),
});

export const customerRoutes = [createCustomerRoute, listCustomersRoute, getCustomerRoute];

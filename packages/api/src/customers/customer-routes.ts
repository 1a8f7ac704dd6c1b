import { defineResourceReads } from "../http/read-routes.ts";
import { defineRoute } from "../http/route.ts";
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

export const [listCustomersRoute, getCustomerRoute] = defineResourceReads({
  path: "/v1/customers",
  tag: "Customers",
  item: customerResource,
  params: customerIdParams,
  notFound: "Customer",
  list: {
    operationId: "listCustomers",
    summary: "List customers, newest first",
    filters: listCustomersQuery,
    read: listCustomers,
  },
  get: { operationId: "getCustomer", summary: "Retrieve one customer", read: findCustomer },
});

export const customerRoutes = [createCustomerRoute, listCustomersRoute, getCustomerRoute];

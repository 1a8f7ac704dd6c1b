import { defineIdempotentPost } from "../http/idempotent-routes.ts";
import { defineResourceReads } from "../http/read-routes.ts";
import { createCustomerBody, customerIdParams, customerResource, listCustomersQuery } from "./customer-schemas.ts";
import { findCustomer, insertCustomer, listCustomers } from "./customer-store.ts";
import { PROVISION_CUSTOMER_JOB } from "./provision-customer-job.ts";

export const createCustomerRoute = defineIdempotentPost({
  path: "/v1/customers",
  operationId: "createCustomer",
  summary: "Create a customer; its verification profile is provisioned asynchronously (202, status PROVISIONING)",
  tag: "Customers",
  body: createCustomerBody,
  response: customerResource,
  successStatus: 202,
  errorStatuses: [409, 503],
  message: "Customer created; verification profile is being provisioned",
  async perform({ merchant, body, sql, deps, idempotencyKey }) {
    const customer = await insertCustomer(sql, merchant.merchantId, body, idempotencyKey);
    // Enqueued in the same transaction: the job exists exactly when the customer does.
    await deps.jobs.send(PROVISION_CUSTOMER_JOB, { customerId: customer.id }, { client: sql });
    return customer;
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

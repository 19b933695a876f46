import type { GroupsService } from '../../modules/groups/groups.service.js';
import { GroupBodySchema, GroupListSchema, GroupParamsSchema, GroupSchema } from '../../modules/groups/groups.schemas.js';
import { defineTool } from '../tool.js';

const CUSTOMER_ID = 'the customer (client group) id (from list_customers or create_customer)';
const WHAT =
  'A customer is a client group of channels: the channels an agency runs for one client. A channel joins one with update_channel (`customer`), list_channels shows it in each channel\'s `customer`, and list_channels and list_posts can narrow to one.';

/** Customers (client groups of channels): the tools of `modules/groups/groups.routes.ts`. */
export function customerTools(groups: GroupsService) {
  return [
    defineTool({
      name: 'list_customers',
      title: 'List customers (client groups)',
      route: 'GET /groups',
      description: `The organisation's customers, each with its id and name. ${WHAT}`,
      input: {},
      output: GroupListSchema,
      outputKey: 'customers',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => groups.listGroups(ctx.organizationId),
      summary: (list) => `${list.length} customer(s): ${list.map((g) => `${g.name} (id ${g.id})`).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'create_customer',
      title: 'Create a customer (client group)',
      route: 'POST /groups',
      description: `Creates a customer with a name (1 to 200 characters) and answers its id. ${WHAT}`,
      input: { body: GroupBodySchema },
      hints: { name: "the customer's name, e.g. the client's company" },
      output: GroupSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { body }) => groups.createGroup(ctx.organizationId, body.name),
      summary: (g) => `Created customer ${g.name} (id ${g.id})`,
    }),
    defineTool({
      name: 'rename_customer',
      title: 'Rename a customer (client group)',
      route: 'PUT /groups/:id',
      description: 'Gives a customer (a client group of channels) a new name; its channels stay in it.',
      input: { params: GroupParamsSchema, body: GroupBodySchema },
      rename: { 'params.id': 'customerId' },
      hints: { customerId: CUSTOMER_ID, name: 'the new name' },
      output: GroupSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: (ctx, { params, body }) => groups.renameGroup(ctx.organizationId, params.id, body.name),
      summary: (g) => `Customer ${g.id} is now named ${g.name}`,
    }),
    defineTool({
      name: 'delete_customer',
      title: 'Delete a customer (client group)',
      route: 'DELETE /groups/:id',
      description: 'Deletes a customer (a client group of channels). Its channels stay connected, in no group; their posts are untouched.',
      input: { params: GroupParamsSchema },
      rename: { 'params.id': 'customerId' },
      hints: { customerId: CUSTOMER_ID },
      output: GroupSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => groups.deleteGroup(ctx.organizationId, params.id),
      summary: (g) => `Deleted customer ${g.name} (id ${g.id}); its channels are in no group now`,
    }),
  ];
}

/** What tools/list must publish for the library's `quote`: the plugin's schema from its types and JSDoc. */
export const QUOTE = {
  name: 'quote',
  description: 'Prices an order of a catalog item.',
  inputSchema: {
    type: 'object',
    properties: {
      sku: { type: 'string', description: 'the catalog code of the item' },
      quantity: { type: 'number', description: 'how many to order' },
      delivery: {
        type: 'string',
        enum: ['standard', 'express'],
        description: 'how fast to deliver it',
        default: 'standard',
      },
    },
    required: ['sku', 'quantity'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      total: { type: 'number', description: 'The total to pay, in cents' },
      delivery: { type: 'string', enum: ['standard', 'express'] },
    },
    required: ['total', 'delivery'],
  },
};

// The derived schema is checked as a written one is: a wrong argument type is a tool error naming the argument.
export const WRONG_QUANTITY = [{ type: 'text', text: 'Invalid argument "quantity": must be number (type)' }];

export const TIMEOUT = 30_000;

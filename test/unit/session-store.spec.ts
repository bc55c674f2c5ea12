import { jest } from '@jest/globals';
import { InMemorySessionStore } from '../../src/server/sessions/session-store.js';
import { sessionStoreContract } from '../support/session-store.contract.js';

jest.setTimeout(15_000);

// One store in one process: both instances of the contract are the same object.
sessionStoreContract('InMemorySessionStore', async () => {
  const store = new InMemorySessionStore();
  return { instance: async () => store, close: () => store.close() };
});

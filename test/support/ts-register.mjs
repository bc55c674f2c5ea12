// `node --import ./test/support/ts-register.mjs file.ts`: runs the repository's TypeScript in a child process.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);

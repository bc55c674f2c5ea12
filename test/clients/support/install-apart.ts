import { installApartClients } from './installed-apart.js';

// `node --import ./test/support/ts-register.mjs test/clients/support/install-apart.ts`: installs the clients that
// run apart, as their specs would on first use. CI runs it beside the build, where the install waits on the
// registry while the build computes, so that no jest worker waits on it later.
await installApartClients();

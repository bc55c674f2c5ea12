'use strict';
// `node --require` this file: `@nestjs/throttler` resolves as if it were not installed.
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@nestjs/throttler' || request.startsWith('@nestjs/throttler/')) {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolve.call(this, request, ...rest);
};

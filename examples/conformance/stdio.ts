import 'reflect-metadata';
import { bootstrapStdio } from '../../src/index.js';
import { ConformanceModule } from './app.module.js';

/** The conformance fixture as a local server on stdin/stdout: `node build/examples/conformance/stdio.js`. */
void bootstrapStdio(ConformanceModule, { logger: ['error', 'warn'] });

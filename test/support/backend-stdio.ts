import 'reflect-metadata';
import { bootstrapStdio } from '../../src/index.js';
import { backendModule, BackendRecord } from './backend-app.js';

/** The realistic backend's AppModule, unchanged, served on stdio. */
void bootstrapStdio(backendModule(new BackendRecord()));

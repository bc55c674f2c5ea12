// The same app as a local stdio server, the way a desktop client launches it.
import 'reflect-metadata';
import { bootstrapStdio } from 'nestjs-mcp';
import { AppModule } from './app.module.js';

void bootstrapStdio(AppModule);

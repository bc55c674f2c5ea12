import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { AppModule } from './app.module.js';
import * as testing from 'nestjs-mcp/testing';
import * as expressEntry from 'nestjs-mcp/express';
import smoke from '../smoke-cases.cjs';

const appDir = fileURLToPath(new URL('.', import.meta.url));
smoke.defineSmokeTests({ label: 'Nest 12 ESM', appDir, NestFactory, AppModule, request, testing, expressEntry, expectedNestMajor: 12 });

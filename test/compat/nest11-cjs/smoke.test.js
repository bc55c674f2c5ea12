'use strict';
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const request = require('supertest');
const { AppModule } = require('./app.module.js');
const testing = require('nestjs-mcp/testing');
const expressEntry = require('nestjs-mcp/express');
const { defineSmokeTests } = require('../smoke-cases.cjs');

defineSmokeTests({ label: 'Nest 11 CommonJS', appDir: __dirname, NestFactory, AppModule, request, testing, expressEntry, expectedNestMajor: 11 });

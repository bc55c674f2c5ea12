'use strict';
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const request = require('supertest');
const { AppModule } = require('./app.module.js');
const { defineSmokeTests } = require('../smoke-cases.cjs');

defineSmokeTests({ label: 'Nest 11 CommonJS', appDir: __dirname, NestFactory, AppModule, request, expectedNestMajor: 11 });

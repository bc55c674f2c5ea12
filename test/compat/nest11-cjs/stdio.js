'use strict';
// The same app as a local stdio server, the way a desktop client launches it.
require('reflect-metadata');
const { bootstrapStdio } = require('nestjs-mcp');
const { AppModule } = require('./app.module.js');

void bootstrapStdio(AppModule);

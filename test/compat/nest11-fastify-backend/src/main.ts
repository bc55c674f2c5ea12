import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

async function bootstrap() {
  const app = await configureApp(await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter()));
  await app.listen(process.env.PORT ?? 3000, '0.0.0.0');
}
bootstrap();

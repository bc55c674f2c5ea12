import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import { McpModule } from 'nestjs-mcp';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { AppController } from './app.controller';
import { JWT_SECRET, JwtAuthGuard, JwtStrategy, MCP_RESOURCE } from './auth';
import { Order } from './order.entity';
import { OrdersService } from './orders.service';
import { OrdersTools } from './orders.tools';

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'postgres',
      host: process.env.PGHOST ?? '127.0.0.1',
      port: 5432,
      username: process.env.PGUSER ?? 'postgres',
      database: 'test',
      entities: [Order],
      synchronize: true,
    }),
    TypeOrmModule.forFeature([Order]),
    // The app's tokens name the MCP endpoint as an audience, so it takes them (docs/authorization.md).
    JwtModule.register({ secret: JWT_SECRET, signOptions: { expiresIn: '15m', audience: MCP_RESOURCE } }),
    PassportModule,
    ThrottlerModule.forRoot([{ ttl: 60_000, limit: 100 }]),
    McpModule.forRoot({
      name: 'orders',
      version: '1.0.0',
      auth: { resource: MCP_RESOURCE, jwt: { secret: JWT_SECRET, typ: 'JWT' } },
    }),
  ],
  controllers: [AppController],
  providers: [
    OrdersService,
    OrdersTools,
    JwtStrategy,
    { provide: APP_GUARD, useClass: ThrottlerGuard },
    { provide: APP_GUARD, useClass: JwtAuthGuard },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
  ],
})
export class AppModule {}

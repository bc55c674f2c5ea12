import 'reflect-metadata';
import { Body, Controller, Injectable, Post, type INestApplication } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { McpModule, RouteTool, Tool } from '../../src/index.js';
import { createMcpTestClient } from '../../src/testing/index.js';
import { createApp } from '../support/create-app.js';

// One DTO, documented the way a Nest backend documents its API: class-validator for the rules, @ApiProperty for
// what a reader (and now a model) needs to know.
class InviteDto {
  @ApiProperty({ description: 'Where the invitation goes', example: 'ada@example.com', format: 'email' })
  @IsEmail()
  email!: string;

  @ApiProperty({ description: 'Seats granted', example: 3, default: 1, minimum: 1 })
  @IsInt()
  @Min(1)
  @Max(50)
  seats!: number;

  @ApiProperty({ required: false, description: 'A note shown to the invitee' })
  @IsOptional()
  @IsString()
  note?: string;
}

/** A DTO that only @ApiProperty describes (no class-validator rule at all). */
class LabelDto {
  @ApiProperty({ description: 'The label text', example: 'urgent', maxLength: 20 })
  text!: string;
}

@Injectable()
class InviteTools {
  @Tool({ description: 'Invites a user', inputSchema: InviteDto })
  invite(args: InviteDto): string {
    return `invited ${args.email}`;
  }

  @Tool({ description: 'Adds a label', inputSchema: LabelDto })
  label(args: LabelDto): string {
    return `labelled ${args.text}`;
  }
}

@Controller('invites')
class InvitesController {
  @Post()
  @RouteTool({ name: 'invite_route' })
  create(@Body() invite: InviteDto): string {
    return `invited ${invite.email}`;
  }

  @Post('labels')
  @RouteTool({ name: 'label_route' })
  label(@Body() label: LabelDto): string {
    return `labelled ${label.text}`;
  }
}

describe('DTO schemas: @Tool and @RouteTool read a DTO the same way', () => {
  let app: INestApplication;
  let tools: Map<string, { inputSchema: Record<string, any> }>;

  beforeAll(async () => {
    app = await createApp([McpModule.forRoot({ name: 'dto', version: '1.0.0' })], [InviteTools], 'express', [
      InvitesController,
    ]);
    const listed = (await createMcpTestClient(app).listTools()).result!.tools;
    tools = new Map(listed.map((tool) => [tool.name, tool as never]));
  });
  afterAll(() => app.close());

  it('gives a @Tool DTO the descriptions, examples, defaults and formats of its @ApiProperty, beside its rules', () => {
    const { properties, required } = tools.get('invite')!.inputSchema;
    expect(properties.email).toMatchObject({
      type: 'string',
      format: 'email',
      description: 'Where the invitation goes',
      examples: ['ada@example.com'],
    });
    expect(properties.seats).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 50,
      default: 1,
      description: 'Seats granted',
      examples: [3],
    });
    expect(properties.note).toMatchObject({ type: 'string', description: 'A note shown to the invitee' });
    expect([...required].sort()).toEqual(['email', 'seats']);
  });

  it('publishes the same schema for the DTO as a @Tool input and as a route tool body', () => {
    expect(tools.get('invite')!.inputSchema.properties).toEqual(tools.get('invite_route')!.inputSchema.properties);
    expect(tools.get('label')!.inputSchema.properties).toEqual(tools.get('label_route')!.inputSchema.properties);
    expect(tools.get('label')!.inputSchema.properties.text).toEqual({
      type: 'string',
      maxLength: 20,
      description: 'The label text',
      examples: ['urgent'],
    });
  });

  it('validates @Tool arguments against the @ApiProperty-only DTO too', async () => {
    const mcp = createMcpTestClient(app);
    const ok = await mcp.callTool('label', { text: 'urgent' });
    expect(ok.result?.content).toEqual([{ type: 'text', text: 'labelled urgent' }]);
    const tooLong = await mcp.callTool('label', { text: 'x'.repeat(21) });
    expect(tooLong.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Invalid argument "text": must NOT have more than 20 characters (maxLength)' }],
    });
  });
});

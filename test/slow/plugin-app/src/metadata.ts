// src/metadata.ts: replaced by `nest build` / `nest start` with what nestjs-mcp/plugin derives
export default async () => ({});

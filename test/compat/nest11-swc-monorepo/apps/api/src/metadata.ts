// Rewritten by `nest build`, whose type check runs nestjs-mcp/plugin; committed so that the first build's type
// check, which runs before the file is written, finds it.
export default async () => ({});

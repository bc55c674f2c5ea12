/** The messages `runConformance` fails with: each names what is missing and how to provide it. */

export const REFEREE_PACKAGE = '@modelcontextprotocol/conformance';

const install = (version: string) => `npm install --save-dev ${REFEREE_PACKAGE}@${version}`;

export const REFEREE_NOT_INSTALLED = (cwd: string, version: string) =>
  `runConformance needs the MCP conformance referee, which is not installed in ${cwd}: ${install(version)} ` +
  `(the release nestjs-mcp is tested with), or pass { referee: '<path to its package folder>' }.`;

export const REFEREE_NOT_AT = (path: string, version: string) =>
  `runConformance: no ${REFEREE_PACKAGE} package at ${path} (the referee option names its package folder or ` +
  `its CLI); ${install(version)}.`;

export const REFEREE_WITHOUT_CLI = (folder: string, version: string) =>
  `runConformance: ${folder} has no conformance CLI; ${install(version)}.`;

export const NODE_OPTION_TOO_OLD = (node: string, version: string, major: number) =>
  `runConformance: the node option ${node} ${version ? `is Node ${version}` : 'did not run'}; the conformance ` +
  `referee needs Node ${major} or later.`;

export const NODE_TOO_OLD = (version: string, major: number) =>
  `runConformance: the conformance referee needs Node ${major} or later and this process runs Node ${version}. ` +
  `Run the tests on Node ${major}+, or name a Node ${major}+ binary for the referee alone: ` +
  `npm install --prefix .node${major} --no-save node@${major} and pass { node: '.node${major}/node_modules/node/bin/node' }.`;

export const SCENARIO_RAN_NO_CHECKS = (scenario: string, era: string, output: string) =>
  `runConformance: the referee ran no checks for scenario '${scenario}' at ${era}: ${output}`;

export const UNKNOWN_ERA = (era: string, eras: readonly string[]) =>
  `runConformance: era '${era}' is not one of ${eras.join(', ')}.`;

export const NO_SCENARIOS = 'runConformance: scenarios is empty; name at least one.';

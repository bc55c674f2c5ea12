'use strict';
// Hand-written CommonJS, copied unchanged into both builds (scripts/build.mjs), because it finds the page by its
// own place on disk, which code compiled to both formats cannot know (`import.meta` is ESM-only). The package
// build writes the page and its view bridge to dist/playground, three folders up from dist/esm/nest/playground and
// dist/cjs/nest/playground (and from build/src/nest/playground, for build/playground); an app run from the
// sources of a checkout (src/nest/playground) serves the page of the checkout's last package build.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const PLACES = [
  join(__dirname, '..', '..', '..', 'playground'),
  join(__dirname, '..', '..', '..', 'dist', 'playground'),
];

exports.PLAYGROUND_PAGE_PLACES = PLACES.map((place) => join(place, 'index.html'));

exports.readPlaygroundPage = () => {
  for (const place of PLACES) {
    try {
      return {
        html: readFileSync(join(place, 'index.html'), 'utf8'),
        bridge: readFileSync(join(place, 'bridge.js'), 'utf8'),
      };
    } catch {
      // not built there: try the next place
    }
  }
  return undefined;
};

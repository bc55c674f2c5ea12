// Runs the slow tier's files first, then e2e, then unit. On a clean checkout jest knows no earlier durations and
// orders by file size, so a slow suite could start last and leave one worker busy alone at the end; slow files
// first keep both workers busy until the short ones fill the gaps. Within a tier jest's own order holds (earlier
// failures first, then the longest known durations).
const Sequencer = require('@jest/test-sequencer').default;

const rank = (path) =>
  /[\\/]test[\\/](slow|clients)[\\/]/.test(path) ? 0 : /[\\/]test[\\/]unit[\\/]/.test(path) ? 2 : 1;

class TierSequencer extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    return [...ordered].sort((a, b) => rank(a.path) - rank(b.path));
  }
}

module.exports = TierSequencer;

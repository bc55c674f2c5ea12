import { Injectable } from '@nestjs/common';
import { Skill } from '../../src/index.js';

/**
 * A skill built in code, beside the folder the module's `skills` option serves (`skills/pdf-processing`): the
 * sep-2640-skills-* scenarios read both the same way.
 */
@Injectable()
export class ConformanceSkills {
  @Skill({
    name: 'release-notes',
    description: 'Write release notes from a list of merged changes. Use when preparing a release.',
    frontmatter: { license: 'MIT', metadata: { audience: 'maintainers' } },
  })
  releaseNotes() {
    return {
      body: '# Release notes\n\nGroup the changes as in [the style guide](guides/STYLE.md), newest first.\n',
      files: { 'guides/STYLE.md': '# Style\n\nOne line per change, in the imperative.\n' },
    };
  }
}

import 'reflect-metadata';
import { Tool, type ToolOptions, type ToolRegistrationOptions } from '../../src/index.js';

// `@Tool` hands its options to the same registration `addTool` takes; these two the module sets itself, from the
// method's guards (`hideWhenDenied`) and `@RequireScopes`.
type SetByTheModule = 'visible' | 'requiredScopes';
type Untyped = Exclude<keyof ToolRegistrationOptions, keyof ToolOptions | SetByTheModule>;

// `npm run lint` type-checks this file: an option the registration honours but `@Tool` does not type is named here.
const everyOptionTyped: [Untyped] extends [never] ? true : Untyped = true;

describe('ToolOptions', () => {
  it('types every registration option @Tool passes on (checked by the compiler)', () => {
    expect(everyOptionTyped).toBe(true);
  });

  it('accepts singleUseState and validateArguments in @Tool, as the README’s deletion example writes them', () => {
    class Files {
      @Tool({ description: 'Deletes a file', singleUseState: true, validateArguments: true })
      delete_file(): string {
        return 'deleted';
      }
    }
    expect(new Files().delete_file()).toBe('deleted');
  });
});

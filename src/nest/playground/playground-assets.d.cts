/** Where the page is looked for, in order. */
export declare const PLAYGROUND_PAGE_PLACES: readonly string[];
/** The built playground page, or undefined when no build of it is found. */
export declare function readPlaygroundPage(): string | undefined;

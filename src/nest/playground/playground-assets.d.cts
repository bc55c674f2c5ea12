/** Where the page is looked for, in order. */
export declare const PLAYGROUND_PAGE_PLACES: readonly string[];
/** The built playground page and its view bridge's script, or undefined when no build of them is found. */
export declare function readPlaygroundPage(): { html: string; bridge: string } | undefined;

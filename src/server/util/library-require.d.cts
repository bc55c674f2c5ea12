export declare function requireFromLibrary(specifier: string): unknown;

export declare function importJose(): Promise<typeof import('jose')>;

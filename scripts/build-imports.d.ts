export declare function packageOf(specifier: string): string | undefined;
export declare function runtimeImports(text: string): string[];
export declare function findForbiddenImports(files: string[], allowed: Set<string>): { file: string; pkg: string }[];
export declare function productionDependencies(): Set<string>;

export declare const root: string;
export declare function distIsFresh(): boolean;
export declare function webIsFresh(): boolean;

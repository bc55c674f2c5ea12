export interface Widget {
  entry: string;
  template: string;
  outFile: string;
}
export declare const WIDGETS: Widget[];
export declare function buildWidget(widget: Widget): Promise<string>;

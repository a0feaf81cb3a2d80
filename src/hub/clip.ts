/** Cuts what an agent sent before it reaches a log line or an error message, marking the cut. */
export function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

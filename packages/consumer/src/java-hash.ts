/** Java's String.hashCode over UTF-16 code units (int32 arithmetic): Kafka's roundrobin assignor sorts by it. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

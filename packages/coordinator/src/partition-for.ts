/** Java's String.hashCode: 31-polynomial over UTF-16 code units with int32 wrap-around. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.abs: abs(Integer.MIN_VALUE) is 0, not negative. */
function javaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/** The `__consumer_offsets` partition of a group (GroupMetadataManager.partitionFor). */
export function partitionForGroup(groupId: string, offsetsTopicNumPartitions: number): number {
  return javaAbs(javaStringHashCode(groupId)) % offsetsTopicNumPartitions;
}

export const OFFSETS_TOPIC = '__consumer_offsets';

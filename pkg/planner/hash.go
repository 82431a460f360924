package planner

// FNV-1 32-bit parameters (hash/fnv.New32). KubeFed orders clusters of equal
// weight with FNV-1, not FNV-1a: multiply first, then XOR each byte.
const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

// fnv1 is the FNV-1 32-bit hash of cluster followed by key, the value
// KubeFed's planner computes with fnv.New32 over the cluster name and then
// the replica set key. It is written out so that hashing allocates nothing.
func fnv1(cluster, key string) uint32 {
	h := uint32(fnvOffset32)
	for i := 0; i < len(cluster); i++ {
		h *= fnvPrime32
		h ^= uint32(cluster[i])
	}
	for i := 0; i < len(key); i++ {
		h *= fnvPrime32
		h ^= uint32(key[i])
	}
	return h
}

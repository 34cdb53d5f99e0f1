package chain

import "testing"

// TestBlockChainConfigStateCache: Config.StateCacheMB is split between go-ethereum's trie node
// and snapshot caches, under either scheme; zero keeps go-ethereum's defaults.
func TestBlockChainConfigStateCache(t *testing.T) {
	for _, scheme := range []string{SchemeHash, SchemePath} {
		def := blockChainConfig(scheme, DefaultStateHistory, 0)
		if def.TrieCleanLimit != 256 || def.SnapshotLimit != 256 {
			t.Errorf("%s, no state cache given: trie %d MB, snapshot %d MB; want go-ethereum's 256 and 256", scheme, def.TrieCleanLimit, def.SnapshotLimit)
		}
		cfg := blockChainConfig(scheme, DefaultStateHistory, 65)
		if cfg.TrieCleanLimit != 32 || cfg.SnapshotLimit != 33 {
			t.Errorf("%s, --state.cache 65: trie %d MB, snapshot %d MB; want 32 and 33", scheme, cfg.TrieCleanLimit, cfg.SnapshotLimit)
		}
	}
}

package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	t.Parallel()
	const commit = "5d68eeb9f630a2f78f5d5cfa117d03ab789a5784"
	opgeth := &debug.Module{Path: "github.com/ethereum-optimism/op-geth", Version: "v1.101702.3"}
	cases := []struct {
		name       string
		bi         *debug.BuildInfo
		wantText   []string // substrings of String()
		wantClient string   // prefix of ClientVersion()
	}{
		{
			name: "clean",
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: "false"}, {Key: "vcs.time", Value: "2026-11-25T13:47:24Z"}},
				Deps: []*debug.Module{{Path: gethModule, Version: "v1.17.10", Replace: opgeth}}},
			wantText:   []string{"commit        " + commit + "\n", "op-geth       v1.101702.3\n", "commit time   2026-11-25T13:47:24Z"},
			wantClient: "flashrpc/" + Version + "/" + commit + "/op-geth-v1.101702.3/go-ethereum-",
		},
		{
			name:       "modified",
			bi:         &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: "true"}}},
			wantText:   []string{commit + " (modified", "op-geth       none"},
			wantClient: "flashrpc/" + Version + "/" + commit + "-modified/go-ethereum-",
		},
		{
			name:       "no vcs",
			bi:         &debug.BuildInfo{},
			wantText:   []string{"commit        unknown (the build carries no VCS information"},
			wantClient: "flashrpc/" + Version + "/commit-unknown/",
		},
		{
			name:       "no build info",
			wantText:   []string{"commit        unknown"},
			wantClient: "flashrpc/" + Version + "/commit-unknown/",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			info := fromBuildInfo(tc.bi)
			text := info.String()
			for _, want := range tc.wantText {
				if !strings.Contains(text, want) {
					t.Errorf("String() = %q, want it to contain %q", text, want)
				}
			}
			if got := info.ClientVersion(); !strings.HasPrefix(got, tc.wantClient) {
				t.Errorf("ClientVersion() = %q, want prefix %q", got, tc.wantClient)
			}
		})
	}
}

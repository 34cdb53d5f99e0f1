package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	gethversion "github.com/ethereum/go-ethereum/version"
)

// Version is flashrpc's release version.
const Version = "v0.1.0"

// gethModule is the module path flashrpc imports go-ethereum under; go.mod replaces it with
// op-geth.
const gethModule = "github.com/ethereum/go-ethereum"

// Info describes one build.
type Info struct {
	// Version is flashrpc's release version ([Version]).
	Version string
	// Commit is the full git commit hash the binary was built from; "" when the build carries
	// no VCS information (see the package comment).
	Commit string
	// CommitTime is the commit's time (RFC 3339); "" when unknown.
	CommitTime string
	// Modified reports that the working tree had uncommitted changes at build time.
	Modified bool
	// OPGeth is the op-geth module version that replaces go-ethereum ("v1.101702.3"); "" when
	// go-ethereum is not replaced (or the build has no module information).
	OPGeth string
	// GoEthereum is the upstream go-ethereum version op-geth is based on ("1.17.2-stable").
	GoEthereum string
	// Go is the Go toolchain version ("go1.26.8").
	Go string
	// Platform is GOOS/GOARCH.
	Platform string
}

// Read returns the running binary's build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi)
}

// fromBuildInfo extracts Info from bi; bi may be nil.
func fromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{
		Version:    Version,
		GoEthereum: fmt.Sprintf("%d.%d.%d-%s", gethversion.Major, gethversion.Minor, gethversion.Patch, gethversion.Meta),
		Go:         runtime.Version(),
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi == nil {
		return info
	}
	if bi.GoVersion != "" {
		info.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.CommitTime = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	for _, dep := range bi.Deps {
		if dep.Path == gethModule && dep.Replace != nil {
			info.OPGeth = dep.Replace.Version
		}
	}
	return info
}

// commitText is the commit as printed: the hash, "(modified)" for a dirty tree, or why it is
// unknown.
func (i Info) commitText() string {
	if i.Commit == "" {
		return "unknown (the build carries no VCS information: build from a git clone with -buildvcs=true, e.g. go run -buildvcs=true ./cmd/flashrpc)"
	}
	if i.Modified {
		return i.Commit + " (modified: built from a tree with uncommitted changes)"
	}
	return i.Commit
}

// String returns the text `flashrpc version` prints: one "name value" line each.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "flashrpc      %s\n", i.Version)
	fmt.Fprintf(&b, "commit        %s\n", i.commitText())
	if i.CommitTime != "" {
		fmt.Fprintf(&b, "commit time   %s\n", i.CommitTime)
	}
	opgeth := i.OPGeth
	if opgeth == "" {
		opgeth = "none (go-ethereum not replaced)"
	}
	fmt.Fprintf(&b, "op-geth       %s\n", opgeth)
	fmt.Fprintf(&b, "go-ethereum   %s\n", i.GoEthereum)
	fmt.Fprintf(&b, "go            %s %s\n", i.Go, i.Platform)
	return b.String()
}

// ClientVersion returns web3_clientVersion's answer, in go-ethereum's slash-separated form
// with the same facts as String:
// "flashrpc/v0.1.0/<commit>[-modified]/op-geth-v1.101702.3/go-ethereum-1.17.2-stable/linux-amd64/go1.26.8".
// An unknown commit reads "commit-unknown".
func (i Info) ClientVersion() string {
	commit := i.Commit
	switch {
	case commit == "":
		commit = "commit-unknown"
	case i.Modified:
		commit += "-modified"
	}
	parts := []string{"flashrpc", i.Version, commit}
	if i.OPGeth != "" {
		parts = append(parts, "op-geth-"+i.OPGeth)
	}
	parts = append(parts, "go-ethereum-"+i.GoEthereum, strings.ReplaceAll(i.Platform, "/", "-"), i.Go)
	return strings.Join(parts, "/")
}

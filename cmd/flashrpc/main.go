// Command flashrpc is a JSON-RPC node for chains that pre-confirm transactions every ~200 ms
// before sealing a block. It serves a standard endpoint (sealed blocks) and a pre-confirmed
// endpoint (`pending` = the block in progress).
//
//	flashrpc [dev] [flags]   run the embedded dev chain (the default)
//	flashrpc serve [flags]   serve a stored chain without a sequencer
//	flashrpc follow [flags]  run a replica of another sequencer (--upstream, --feed)
//	flashrpc import [flags] chain.rlp   import an RLP chain file
//	flashrpc generate [flags]           generate a large chain for benchmarks
//	flashrpc networks [--json]          list the networks flashrpc knows (--network NAME)
//	flashrpc version                    print the version, commit and op-geth version
//
// Run `flashrpc <command> --help` for the flags of each command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/flashrpc/flashrpc/internal/buildinfo"
	"github.com/flashrpc/flashrpc/internal/chain/kvstore"
)

const usage = `flashrpc: a JSON-RPC node for chains that pre-confirm transactions before sealing a block.

Usage:
  flashrpc [dev] [flags]    run the embedded dev chain: a sequencer that pre-confirms every
                            200 ms and seals every 2 s (the default command)
  flashrpc serve [flags]    serve a stored chain (--datadir) without a sequencer; pending is
                            the latest sealed block on both endpoints
  flashrpc follow --upstream URL [--feed WSURL] [--genesis FILE] [--sequencer URL]
                            run a replica: verified sealed blocks from the upstream,
                            verified pre-confirmations from its flashblocks feed
  flashrpc import [flags] chain.rlp
                            import an RLP chain file into a datadir, executing every block
  flashrpc generate --datadir DIR [--blocks N]
                            generate a large, realistic chain of token transfers (benchmarks)
  flashrpc networks [--json]
                            list the networks flashrpc knows, their rules and cadence: the
                            names dev --network takes
  flashrpc version          print the version, the commit it was built from and the op-geth /
                            go-ethereum version (also: flashrpc --version)

Every command serves two JSON-RPC endpoints (HTTP POST and WebSocket at "/"):
  standard       http://127.0.0.1:8545  sealed blocks only
  pre-confirmed  http://127.0.0.1:8547  also the block in progress under the "pending" tag

Run "flashrpc <command> --help" for the flags of a command.

Environment: GOGC sets the garbage collector's target (default 400 here, not Go's 100:
the heap is small beside the database caches, which live outside it). GOMAXPROCS sets the
Go scheduler's Ps; without it (on Linux) flashrpc runs the database's flushes and compactions
at a lower priority, each with a P of its own while it runs.
`

func main() {
	setGCPercent()
	lowerBackgroundJobs(kvstore.LowerBackgroundPriority)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := "dev"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		cmd, args = "version", args[1:]
	} else if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(stdout, usage)
		fmt.Fprintln(stdout, "\nFlags of the default command, dev:")
		fs, _ := devFlags(stdout)
		fs.PrintDefaults()
		return 0
	}
	var err error
	switch cmd {
	case "dev":
		err = runDev(args, stdout, stderr)
	case "serve":
		err = runServe(args, stdout, stderr)
	case "follow":
		err = runFollow(args, stdout, stderr)
	case "import":
		err = runImport(args, stdout, stderr)
	case "generate":
		err = runGenerate(args, stdout, stderr)
	case "networks":
		err = runNetworks(args, stdout, stderr)
	case "version":
		err = runVersion(args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "flashrpc: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		fmt.Fprintf(stderr, "flashrpc: %s\n", explain(err))
		return 1
	}
}

// explain returns err's text on one line, followed by what to do about it when the error is
// one a user commonly meets at start: a port in use, a data directory that cannot be written,
// an upstream that does not answer.
func explain(err error) string {
	msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
	var hint string
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		hint = "another process (perhaps another flashrpc) listens on that port: stop it, or choose another with " + portFlag(msg) + " (0 picks a free port)"
	case errors.Is(err, syscall.EACCES) && strings.Contains(msg, "listen on"):
		hint = "ports below 1024 need privileges: choose another with " + portFlag(msg)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		hint = "no interface of this machine has that address: check --http.addr (or --feed.addr, --metrics.addr)"
	case strings.HasPrefix(msg, "open chain") && errors.Is(err, syscall.EAGAIN):
		hint = "another process (perhaps another flashrpc) has that --datadir open: stop it, or give another --datadir"
	case strings.HasPrefix(msg, "open chain") && (errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR)):
		hint = "give --datadir a directory this user can create and write"
	case strings.Contains(msg, "cannot reach the upstream") || strings.Contains(msg, "upstream") && (errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(msg, "no such host")):
		hint = "check the upstream's URL and that a node answers there"
	}
	if hint == "" {
		return msg
	}
	return msg + ": " + hint
}

// portFlag names the flag that sets the port a listen error names.
func portFlag(msg string) string {
	for _, p := range []struct{ prefix, flag string }{
		{"standard endpoint", "--http.port"}, {"pre-confirmed endpoint", "--preconf.port"},
		{"flashblocks feed", "--feed.port"}, {"metrics", "--metrics.port"},
	} {
		if strings.HasPrefix(msg, p.prefix) {
			return p.flag
		}
	}
	return "--http.port, --preconf.port, --feed.port or --metrics.port"
}

// errUsage reports bad flags; the flag package has already printed why.
var errUsage = errors.New("usage")

// newFlagSet returns the flag set of a command; out receives its errors and its help: usage,
// then the flags' defaults.
func newFlagSet(name string, out io.Writer, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses a command's arguments. It returns flag.ErrHelp when help was asked for,
// and errUsage for bad flags (the flag set has printed why).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// helpOutput is where a command's flag set prints: stdout when help was asked for, so that
// "flashrpc dev --help | less" works, stderr for usage errors.
func helpOutput(args []string, stdout, stderr io.Writer) io.Writer {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "--h":
			return stdout
		}
	}
	return stderr
}

// runVersion prints the build: version, commit, op-geth and go-ethereum versions.
func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("flashrpc version", helpOutput(args, stdout, stderr), "Usage: flashrpc version\n\nPrints the version, the commit it was built from and the op-geth / go-ethereum version.\n")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if args = fs.Args(); len(args) > 0 {
		fmt.Fprintf(stderr, "flashrpc version: unexpected argument %q\n", args[0])
		return errUsage
	}
	fmt.Fprint(stdout, buildinfo.Read().String())
	return nil
}

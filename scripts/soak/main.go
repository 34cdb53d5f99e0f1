// Command soak runs a primary (`flashrpc dev`) and two replicas (`flashrpc follow --feed`)
// behind HAProxy (scripts/cluster), drives them with the realistic mix at a steady rate and
// subscribers on every kind, and every --sample records each process's memory, goroutines,
// open files, the replicas' lag and the notifications delivered. It writes the samples as CSV
// and a summary that says, per series, whether it stayed flat (the least-squares slope after
// the warm-up, over the run, within a tolerance), whether each delivery rate stayed above
// zero and each failure rate within its tolerance. It is a script, not a test: an hour
// (--duration) of load is for an operator to run.
//
//	go run ./scripts/soak                                  # an hour, 50 tx/s
//	go run ./scripts/soak --duration 10m --rate 30 --dir /tmp/soak
//
// docs/operations.md ("Soak") has the method and a run's figures. The exit status is 1 when a
// series fails, 2 when the run could not be made.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.bin, "bin", "", "flashrpc binary (default: ./cmd/flashrpc built by scripts/cluster)")
	flag.DurationVar(&cfg.duration, "duration", time.Hour, "how long the load runs")
	flag.DurationVar(&cfg.sample, "sample", 30*time.Second, "how often the processes are sampled")
	flag.DurationVar(&cfg.warmup, "warmup", 2*time.Minute, "samples before this are written but left out of the slopes")
	flag.IntVar(&cfg.rate, "rate", 50, "transactions per second of the realistic mix, sent to the primary")
	flag.IntVar(&cfg.reads, "reads", 20, "read requests per second through HAProxy (balances, calls and eth_getLogs, on both frontends)")
	flag.IntVar(&cfg.accounts, "accounts", 50, "dev accounts that send (the primary is started with as many)")
	flag.IntVar(&cfg.port, "port", 8700, "first port of the cluster (scripts/cluster --port)")
	flag.StringVar(&cfg.nodeArgs, "node-args", "", "flags added to every flashrpc node's command line, e.g. \"--state.cache 64\"")
	flag.StringVar(&cfg.dir, "dir", "", "directory for the cluster's files, the CSV and the summary (default: a new temporary directory)")
	flag.Parse()
	if cfg.rate <= 0 || cfg.accounts <= 0 || cfg.sample <= 0 || cfg.warmup < 0 {
		log.Fatal("soak: --rate, --accounts and --sample must be positive, --warmup not negative")
	}
	if least := cfg.warmup + 3*cfg.sample; cfg.duration < least {
		log.Fatalf("soak: --duration %s leaves fewer than 3 samples after the warm-up: give at least --warmup + 3 × --sample = %s", cfg.duration, least)
	}
	if cfg.dir == "" {
		d, err := os.MkdirTemp("", "flashrpc-soak-")
		if err != nil {
			log.Fatal(err)
		}
		cfg.dir = d
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	flat, err := run(ctx, cfg)
	if err != nil {
		log.Printf("soak: %v (files in %s)", err, cfg.dir)
		os.Exit(2)
	}
	if !flat {
		os.Exit(1)
	}
}

// config is the soak's command line.
type config struct {
	bin                      string
	duration, sample, warmup time.Duration
	rate, reads, accounts    int
	port                     int
	dir                      string
	nodeArgs                 string
}

// run starts the cluster, loads and samples it for cfg.duration, stops it and writes the CSV
// and the summary. It reports whether every series was flat.
func run(ctx context.Context, cfg config) (bool, error) {
	cl, err := startCluster(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer cl.stop()
	log.Printf("soak: cluster ready (files in %s)", cfg.dir)

	primary := newClient(cl.url(cl.primaryPort + 1))
	ld, err := newLoad(primary, newClient(cl.url(cl.primaryPort)), newClient(cl.lbURL(true)), newClient(cl.lbURL(false)), cfg)
	if err != nil {
		return false, fmt.Errorf("set up the mix: %w", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, cfg.duration)
	// The load and the subscribers end before the cluster stops (the deferred stop above).
	var clients sync.WaitGroup
	defer func() {
		cancel()
		clients.Wait()
	}()
	subs := startSubscribers(runCtx, cl, &clients)
	clients.Go(func() { ld.send(runCtx, cfg.rate) })
	clients.Go(func() { ld.read(runCtx, cfg.reads) })

	sm := newSampler(cl, ld, subs)
	csvPath := filepath.Join(cfg.dir, "soak.csv")
	rec, err := newRecorder(csvPath)
	if err != nil {
		return false, err
	}
	defer rec.close()
	start := time.Now()
	tick := time.NewTicker(cfg.sample)
	defer tick.Stop()
	for {
		select {
		case <-runCtx.Done():
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			if err := rec.close(); err != nil {
				return false, err
			}
			sum := summarize(rec, cfg.warmup, time.Since(start))
			text := sum.String(cfg)
			fmt.Print(text)
			if err := os.WriteFile(filepath.Join(cfg.dir, "summary.md"), []byte(text), 0o644); err != nil {
				return false, err
			}
			log.Printf("soak: samples in %s, summary in %s", csvPath, filepath.Join(cfg.dir, "summary.md"))
			return sum.flat(), nil
		case <-tick.C:
			s := sm.sample(runCtx, time.Since(start))
			if err := rec.add(s); err != nil {
				return false, err
			}
			log.Printf("soak: %s", s.brief())
		}
	}
}

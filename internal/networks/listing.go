package networks

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// listing is a network as `flashrpc networks --json` writes it (decisions.md "Networks by
// name"): durations as Go duration strings ("200ms", "2s"; "0s" without pre-confirmations),
// the feed format as --feed.format names it ("none" without pre-confirmations).
type listing struct {
	Name            string `json:"name"`
	ChainID         uint64 `json:"chainId"`
	Kind            Kind   `json:"kind"`
	Source          string `json:"source"`
	Forks           []Fork `json:"forks"`
	BlockTime       string `json:"blockTime"`
	PreconfInterval string `json:"preconfInterval"`
	FeedFormat      string `json:"feedFormat"`
}

func (n Network) listing() listing {
	feed := "none" // no pre-confirmations flashrpc can read
	if n.PreconfInterval > 0 {
		feed = n.Feed.String()
	}
	return listing{Name: n.ID, ChainID: n.ChainID, Kind: n.Kind, Source: n.Source, Forks: n.Forks(),
		BlockTime: n.BlockTime.String(), PreconfInterval: n.PreconfInterval.String(), FeedFormat: feed}
}

// MarshalJSON writes the network as `flashrpc networks --json` lists it: {name, chainId,
// kind, source, forks: [{name, block or time, runs}], blockTime, preconfInterval,
// feedFormat}, name being the network's ID. json.Marshal([All]()) is the whole listing.
func (n Network) MarshalJSON() ([]byte, error) { return json.Marshal(n.listing()) }

// WriteTable writes networks as the table `flashrpc networks` prints: one row per network
// with its name, chain id, kind, block time, pre-confirmation interval, feed format, source
// and forks, each fork as name@time (or name#block) with "(not run)" after the ones flashrpc
// does not run.
func WriteTable(w io.Writer, networks []Network) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCHAIN ID\tKIND\tBLOCK\tPRECONF\tFEED\tSOURCE\tFORKS")
	for _, n := range networks {
		l := n.listing()
		preconf := "-"
		if n.PreconfInterval > 0 {
			preconf = l.PreconfInterval
		}
		forks := make([]string, 0, len(l.Forks))
		for _, f := range l.Forks {
			s := f.Name
			switch {
			case f.Time != nil:
				s += fmt.Sprintf("@%d", *f.Time)
			case f.Block != nil:
				s += fmt.Sprintf("#%d", *f.Block)
			}
			if !f.Runs {
				s += " (not run)"
			}
			forks = append(forks, s)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", l.Name, l.ChainID, l.Kind, l.BlockTime, preconf, l.FeedFormat, l.Source, strings.Join(forks, ", "))
	}
	return tw.Flush()
}

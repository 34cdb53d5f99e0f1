package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// client is a JSON-RPC client over HTTP with keep-alive connections.
type client struct {
	url  string
	http *http.Client
}

func newClient(url string) *client {
	return &client{url: url, http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *client) post(body []byte) ([]byte, error) {
	resp, err := c.http.Post(c.url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: HTTP %s", c.url, resp.Status)
	}
	return out, err
}

// call calls method and decodes its result into out (nil: ignored).
func (c *client) call(out any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	raw, err := c.post(body)
	if err != nil {
		return err
	}
	var r rpcResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result, out)
}

func (c *client) blockNumber() (uint64, error) {
	var n hexutil.Uint64
	err := c.call(&n, "eth_blockNumber")
	return uint64(n), err
}

func (c *client) chainID() (*big.Int, error) {
	var id hexutil.Big
	err := c.call(&id, "eth_chainId")
	return (*big.Int)(&id), err
}

func (c *client) nonce(a common.Address, block string) (uint64, error) {
	var n hexutil.Uint64
	err := c.call(&n, "eth_getTransactionCount", a, block)
	return uint64(n), err
}

// sendBatch sends raw transactions in one batch request and returns, per transaction, its
// refusal ("" when taken).
func (c *client) sendBatch(raws [][]byte) ([]string, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, raw := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"eth_sendRawTransaction","params":["%s"]}`, i, hexutil.Encode(raw))
	}
	b.WriteByte(']')
	out, err := c.post(b.Bytes())
	if err != nil {
		return nil, err
	}
	var rs []struct {
		ID int `json:"id"`
		rpcResponse
	}
	if err := json.Unmarshal(out, &rs); err != nil {
		return nil, fmt.Errorf("batch answer: %w", err)
	}
	refusals := make([]string, len(raws))
	for _, r := range rs {
		if r.Error != nil && r.ID >= 0 && r.ID < len(raws) {
			msg := r.Error.Message
			if i := strings.IndexByte(msg, ':'); i > 0 {
				msg = msg[:i]
			}
			refusals[r.ID] = msg
		}
	}
	return refusals, nil
}

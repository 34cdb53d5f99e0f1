package flashblocks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// Brotli settings of Base's websocket-proxy (--enable-compression): quality 5, window 2^22.
const (
	brotliQuality = 5
	brotliWindow  = 22
)

// MaxMessageSize bounds a message, compressed or not, and the JSON a brotli message
// decompresses to: a consumer refuses anything larger. Base's blocks stay far below it.
const MaxMessageSize = 32 << 20

// ErrTooLarge is returned for a message over MaxMessageSize.
var ErrTooLarge = fmt.Errorf("flashblocks: message over %d bytes", MaxMessageSize)

// Encode returns p as a JSON text message. Nil transaction and withdrawal lists are written
// as [], as producers do.
func Encode(p *Payload) ([]byte, error) {
	out := *p
	if out.Diff.Transactions == nil {
		out.Diff.Transactions = []hexutil.Bytes{}
	}
	if out.Diff.Withdrawals == nil {
		out.Diff.Withdrawals = []*types.Withdrawal{}
	}
	b, err := json.Marshal(&out)
	if err != nil {
		return nil, fmt.Errorf("encode flashblock %d: %w", p.Index, err)
	}
	return b, nil
}

// brotliWriters keeps brotli encoders for reuse: a new one allocates about a megabyte of tables.
var brotliWriters = sync.Pool{New: func() any {
	return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: brotliQuality, LGWin: brotliWindow})
}}

// Compress returns a JSON message brotli-compressed, as sent in a binary frame. It is safe for
// concurrent use.
func Compress(msg []byte) []byte {
	var buf bytes.Buffer
	w := brotliWriters.Get().(*brotli.Writer)
	w.Reset(&buf)
	w.Write(msg) // writes to a bytes.Buffer cannot fail
	w.Close()
	w.Reset(nil)
	brotliWriters.Put(w)
	return buf.Bytes()
}

// Decode parses one message. As Base's consumers do, UTF-8 text whose first non-blank byte is
// '{' is JSON, and anything else is brotli-compressed JSON. The payload must follow the
// format's structural rules ([Payload.Check]); unknown members are ignored.
func Decode(msg []byte) (*Payload, error) {
	p, _, err := DecodeText(msg)
	return p, err
}

// DecodeText is Decode that also returns the message's JSON text as it came (decompressed
// from a brotli frame): what a relay publishes again ([Publisher.PublishText]).
func DecodeText(msg []byte) (*Payload, []byte, error) {
	if len(msg) > MaxMessageSize {
		return nil, nil, ErrTooLarge
	}
	if !isJSONText(msg) {
		var err error
		if msg, err = decompress(msg); err != nil {
			return nil, nil, err
		}
	}
	p := new(Payload)
	if err := json.Unmarshal(msg, p); err != nil {
		return nil, nil, fmt.Errorf("decode flashblock: %w", err)
	}
	if err := p.Check(); err != nil {
		return nil, nil, fmt.Errorf("decode flashblock %d: %w", p.Index, err)
	}
	return p, msg, nil
}

// isJSONText reports whether msg is UTF-8 text starting (after blanks) with '{'.
func isJSONText(msg []byte) bool {
	trimmed := bytes.TrimLeft(msg, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{' && utf8.Valid(msg)
}

func decompress(msg []byte) ([]byte, error) {
	r := io.LimitReader(brotli.NewReader(bytes.NewReader(msg)), MaxMessageSize+1)
	out, err := io.ReadAll(r)
	switch {
	case err != nil:
		return nil, fmt.Errorf("decode flashblock: brotli: %w", err)
	case len(out) > MaxMessageSize:
		return nil, ErrTooLarge
	case len(out) == 0:
		return nil, errors.New("decode flashblock: empty message")
	}
	return out, nil
}

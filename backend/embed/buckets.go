package embed

import (
	"encoding/json"
)

// DefaultSequenceBuckets are the padded lengths inputs are rounded up to,
// clipped to the model's limit (which is always the last bucket). Every
// (batch, length) pair the model sees is compiled once and kept. The
// weights are shared by all compiled shapes (see shareWeights), so a shape
// costs only its program and buffers: compiling one took 35–90 ms on
// MiniLM-L6 at batch 8. Buckets 16 tokens apart keep a passage's padding
// under 16 tokens (a 235-token passage ran padded to 256 with buckets 128
// apart: 9% of its cost went to padding).
var DefaultSequenceBuckets = []int{16, 32, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480}

// minPassageBucket is the shortest padded length for passages: short
// passages share the 64 shape rather than adding 16 and 32 shapes at the
// passage batch size; queries still use every bucket.
const minPassageBucket = 64

// hardMaxTokens caps inputs even when a model claims more positions:
// BERT-family exports are trained up to 512.
const hardMaxTokens = 512

// queryWarmTokens is the longest query shape compiled at load.
const queryWarmTokens = 32

// maxTokens is the smallest of the tokenizer's truncation length, the
// model's position count and hardMaxTokens.
func maxTokens(tokenizerJSON []byte, positions int) int {
	limit := hardMaxTokens
	var tj struct {
		Truncation *struct {
			MaxLength int `json:"max_length"`
		} `json:"truncation"`
	}
	if json.Unmarshal(tokenizerJSON, &tj) == nil && tj.Truncation != nil && tj.Truncation.MaxLength > 0 {
		limit = min(limit, tj.Truncation.MaxLength)
	}
	if positions > 0 {
		limit = min(limit, positions)
	}
	return limit
}

// sequenceBuckets lists the padded lengths inputs are rounded up to. Few
// buckets mean few compiled shapes; padding costs compute but not accuracy
// because padded positions are masked out.
func sequenceBuckets(buckets []int, maxTokens int) []int {
	var out []int
	for _, b := range buckets {
		if b > 2 && b < maxTokens && (len(out) == 0 || b > out[len(out)-1]) {
			out = append(out, b)
		}
	}
	return append(out, maxTokens)
}

func (h *Hugot) bucket(n int) int {
	for _, b := range h.seqBucket {
		if n <= b {
			return b
		}
	}
	return h.seqBucket[len(h.seqBucket)-1]
}

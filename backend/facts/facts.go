// Package facts owns the checkable facts of text and how two writings of
// one fact are compared: numbers with their units ("14-year-old" and "14
// years old", "2½" and "2.5", "two thirds" and "2/3", "3 million" and
// "3,000,000"), scores and ranges ("5-4", "5-to-4", "12 to 18"), ordinals,
// dates ("Friday June 28" under a 2019 dateline and "28 June 2019"), names
// whatever their case, spacing and punctuation ("TechCrunch" and "Tech
// Crunch", "Adams's" and "Adams") and negation cues.
//
// Claim verification checks an answer's facts against its passages with
// it, the answer cache compares questions' facts with it, and search reads
// identifiers with it, so a rule mended here is mended for all three. It
// stands on backend/lexical (Korean stems) and the standard library: a
// leaf of the bottom layer.
package facts

// Text is a text read once: its tokens, dates and quantities.
type Text struct {
	Tokens     []Token
	Dates      []Date
	Quantities []Quantity
}

// Read tokenises s once and finds its dates and quantities (see Tokens,
// Dates, Quantities).
func Read(s string) Text {
	toks := Tokens(s)
	return Text{Tokens: toks, Dates: datesIn(s, toks), Quantities: quantitiesIn(s, toks)}
}

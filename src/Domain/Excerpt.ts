/**
 * The excerpt of a search hit (an article's or a ticket's), built here rather than by PostgreSQL's ts_headline.
 * ts_headline re-parses and re-stems every word of every body on the page, which was a third of
 * the search query's database time; the stemming is the same Snowball English (Porter2) algorithm
 * PostgreSQL's `english` configuration runs, so the words marked are the words that matched.
 * The shape follows the options the queries used to pass ts_headline: up to two fragments (one
 * for a ticket) of at most 30 words around the matches, joined by " … ", matched words in <mark>, the rest
 * HTML-escaped; a text of 30 words or fewer is shown whole, and one without a match (the query
 * matched the title or category) opens with its first 12 words.
 */
import { stem } from "porter2"

const maxWords = 30
const minWords = 12
/** Words of context kept before the first match of a fragment. */
const wordsBefore = 5
/**
 * Matches tried as the start of a passage: a 100 kB body made of matches would otherwise try
 * thousands (15 ms an excerpt here); the first few hundred find as good a passage, in 3 ms.
 */
const candidateMatches = 256
const fragmentDelimiter = " … "

/**
 * The lexemes of a tsquery's text form (`'reset' <-> 'password' & !'invoic'`), without the
 * negated ones: a word the query excludes is not in a hit, and would not be worth marking.
 */
export const queryLexemes = (tsquery: string): ReadonlySet<string> => {
  const lexemes = new Set<string>()
  const negatedGroups: Array<boolean> = []
  let negateNext = false
  for (let i = 0; i < tsquery.length; i++) {
    const char = tsquery[i]
    if (char === "!") negateNext = true
    else if (char === "(") {
      negatedGroups.push(negateNext || negatedGroups.at(-1) === true)
      negateNext = false
    } else if (char === ")") negatedGroups.pop()
    else if (char === "'") {
      let lexeme = ""
      for (i++; i < tsquery.length; i++) {
        const c = tsquery[i]
        if (c === "\\" && i + 1 < tsquery.length) lexeme += tsquery[++i]
        else if (c === "'" && tsquery[i + 1] === "'") lexeme += tsquery[++i]
        else if (c === "'") break
        else lexeme += c
      }
      if (!negateNext && negatedGroups.at(-1) !== true) lexemes.add(lexeme)
      negateNext = false
    }
  }
  return lexemes
}

/** Stems of words seen before: a help centre's vocabulary is small, and stemming is the cost here. */
const stems = new Map<string, string>()
const stemCacheSize = 50_000

/** A word as the `english` configuration indexes it: stemmed, unless it holds a digit (those are only lower-cased). */
export const lexemeOf = (word: string): string => {
  const lower = word.toLowerCase()
  let lexeme = stems.get(lower)
  if (lexeme === undefined) {
    lexeme = /\d/.test(lower) ? lower : stem(lower)
    if (stems.size >= stemCacheSize) stems.clear()
    stems.set(lower, lexeme)
  }
  return lexeme
}

const escapeHtml = (text: string) => text.replace(/[&<>]/g, (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;")

/** PostgreSQL's parser splits words at anything but a letter or digit (`sign-in`, `user's`: two words each). */
const wordPattern = /[\p{L}\p{N}]+/gu

interface Word {
  readonly start: number
  readonly end: number
  readonly lexeme: string | undefined
}

interface Fragment {
  readonly first: number
  readonly end: number
}

/** `passages`: 2 for an article, 1 for a ticket's body (a search's list shows one line of it). */
export const excerpt = (text: string, lexemes: ReadonlySet<string>, passages: 1 | 2 = 2): string => {
  const words: Array<Word> = []
  const matches: Array<number> = []
  for (const found of text.matchAll(wordPattern)) {
    const lexeme = lexemeOf(found[0])
    const matched = lexemes.has(lexeme)
    if (matched) matches.push(words.length)
    words.push({ start: found.index, end: found.index + found[0].length, lexeme: matched ? lexeme : undefined })
  }
  if (words.length === 0) return ""
  const render = ({ end, first }: Fragment) => {
    let out = ""
    for (let i = first; i < end; i++) {
      const word = words[i]!
      if (i > first) out += escapeHtml(text.slice(words[i - 1]!.end, word.start))
      const shown = escapeHtml(text.slice(word.start, word.end))
      out += word.lexeme === undefined ? shown : `<mark>${shown}</mark>`
    }
    return out
  }
  if (words.length <= maxWords) return render({ first: 0, end: words.length })
  if (matches.length === 0) return render({ first: 0, end: minWords })

  /** The window of maxWords around match `at`, kept inside [low, high). */
  const around = (at: number, low: number, high: number): Fragment => {
    const end = Math.min(high, Math.max(low, at - wordsBefore) + maxWords)
    return { first: Math.max(low, end - maxWords), end }
  }
  /** The query words a fragment shows, and how many times: a walk over its own words only, so a long text with many matches stays linear. */
  const shownIn = ({ end, first }: Fragment) => {
    const seen = new Set<string>()
    let count = 0
    for (let i = first; i < end; i++) {
      const lexeme = words[i]!.lexeme
      if (lexeme !== undefined) {
        seen.add(lexeme)
        count++
      }
    }
    return { count, seen }
  }
  /** The fragment showing the most query words not shown yet, then the most of them, then the earliest. */
  const best = (candidates: ReadonlyArray<Fragment>, shown: ReadonlySet<string>) => {
    let chosen: Fragment | undefined
    let chosenScore = [-1, -1, -1]
    for (const fragment of candidates) {
      const { count, seen } = shownIn(fragment)
      const score = [[...seen].filter((l) => !shown.has(l)).length, seen.size, count]
      const better = score[0]! - chosenScore[0]! || score[1]! - chosenScore[1]! || score[2]! - chosenScore[2]!
      if (better > 0) [chosen, chosenScore] = [fragment, score]
    }
    return chosen
  }

  const first = best(matches.slice(0, candidateMatches).map((m) => around(m, 0, words.length)), new Set())!
  if (passages === 1) return render(first)
  const second = best(
    matches.filter((m) => m < first.first || m >= first.end).slice(0, candidateMatches).map((m) =>
      m < first.first ? around(m, 0, first.first) : around(m, first.end, words.length)
    ),
    shownIn(first).seen
  )
  if (second === undefined) return render(first)
  const [earlier, later] = second.first < first.first ? [second, first] : [first, second]
  // passages that touch read as one
  return earlier.end === later.first
    ? render({ first: earlier.first, end: later.end })
    : render(earlier) + fragmentDelimiter + render(later)
}

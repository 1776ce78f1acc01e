import { Effect, FileSystem, Path, Schema, SchemaIssue } from "effect"
import { CreateArticleInput } from "../Domain/Article.ts"
import { ValidationError } from "../Domain/Errors.ts"
import { Articles, slugWords } from "./Articles.ts"
import type { ImportedArticle, ImportOutcome } from "./Repo.ts"
import type { ProjectId } from "../Domain/Ids.ts"

/** A file of an import that is not an article, and why, in words its author can act on. */
export interface RejectedFile {
  readonly file: string
  readonly reason: string
}

/** Some files of a folder are not articles: nothing of the folder was imported. */
export class InvalidArticleFiles extends Schema.TaggedError<InvalidArticleFiles>()("InvalidArticleFiles", {
  files: Schema.Number,
  rejected: Schema.Array(Schema.Struct({ file: Schema.String, reason: Schema.String }))
}) {
  override get message() {
    return `${this.rejected.length} of ${this.files} files are not valid articles; nothing was imported`
  }
}

export interface ImportedFile {
  readonly file: string
  readonly id: string
  readonly slug: string
  readonly outcome: ImportOutcome
}

const frontMatterHelp = "a block between two --- lines at the top, with title: and category:"

/** `"a: b"` and `'a: b'` as YAML reads them: quotes around a value that holds a colon are common. */
const unquote = (value: string) => /^(["']).*\1$/.test(value) && value.length >= 2 ? value.slice(1, -1) : value

/**
 * A Markdown file with a front matter of `key: value` lines (title, category, and optionally
 * slug and published) above the article body; other keys are ignored. A string is what is wrong.
 */
export const parseArticleFile = (text: string) => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  if (lines[0]?.trim() !== "---") return `no front matter (${frontMatterHelp})`
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---")
  if (end === -1) return "the front matter has no closing --- line"
  const fields: Record<string, string> = {}
  for (const line of lines.slice(1, end)) {
    const pair = /^([A-Za-z_]+)\s*:\s*(.*)$/.exec(line)
    if (pair !== null) fields[pair[1]!.toLowerCase()] = unquote(pair[2]!.trim())
  }
  return {
    title: fields.title ?? "",
    category: fields.category ?? "",
    slug: fields.slug,
    published: fields.published,
    body: lines.slice(end + 1).join("\n").trim()
  }
}

const decodeArticle = Schema.decodeUnknownEffect(CreateArticleInput)
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** Every rule a file breaks, in one line. */
const brokenRules = (error: Schema.SchemaError) => formatIssues(error.issue).issues.map((issue) => issue.message).join("; ")

const publishedFlag = (value: string | undefined): boolean | undefined | "invalid" => {
  switch (value?.toLowerCase()) {
    case undefined:
      return undefined
    case "true":
      return true
    case "false":
      return false
    default:
      return "invalid"
  }
}

/** The `.md` files under `folder`, its subfolders included, as `/`-separated paths in code-point order. */
const markdownFiles = Effect.fnUntraced(function*(folder: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const found: Array<string> = []
  const walk = (relative: string): Effect.Effect<void, ValidationError> =>
    Effect.gen(function*() {
      const entries = yield* fs.readDirectoryEntries(path.join(folder, relative)).pipe(
        Effect.mapError((error) =>
          new ValidationError({ message: `folder ${path.join(folder, relative)} cannot be read: ${error.message}` })
        )
      )
      for (const entry of entries) {
        // .git and editors' folders hold no articles
        if (entry.name.startsWith(".")) continue
        const name = relative === "" ? entry.name : `${relative}/${entry.name}`
        // a linked folder is not followed: a link to a parent would never end
        const type = entry.type === "SymbolicLink" || entry.type === "Unknown"
          ? yield* fs.stat(path.join(folder, name)).pipe(
            Effect.map((info) => info.type === "File" ? "File" : "Other"),
            Effect.orElseSucceed(() => "Other")
          )
          : entry.type
        if (type === "Directory") yield* walk(name)
        else if (type === "File" && /\.md$/i.test(entry.name)) found.push(name)
      }
    })
  yield* walk("")
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
})

/**
 * Imports every `.md` file under a folder (subfolders included, hidden ones skipped) in one
 * transaction: every file is checked first, and if any is not an article nothing is written and
 * each bad file is named with its reason. An article is matched by slug, from its front matter
 * or else derived from its title (or its file name when the title has no letter or digit), so
 * importing the same folder again updates the same articles. `publish` decides for every file
 * when given; otherwise each file's `published` does, and a file that does not say is created
 * unpublished and keeps its state when updated. The table's statistics are refreshed after.
 */
export const importFolder = Effect.fn("Articles.importFolder")(function*(
  projectId: ProjectId,
  folder: string,
  options: { readonly publish?: boolean | undefined }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const articles = yield* Articles

  const info = yield* fs.stat(folder).pipe(
    Effect.catchTag("PlatformError", (error) =>
      error.reason._tag === "NotFound"
        ? Effect.fail(new ValidationError({ message: `folder ${folder} does not exist` }))
        : Effect.fail(new ValidationError({ message: `folder ${folder} cannot be read: ${error.message}` })))
  )
  if (info.type !== "Directory") return yield* new ValidationError({ message: `${folder} is not a folder` })
  const files = yield* markdownFiles(folder)
  if (files.length === 0) return yield* new ValidationError({ message: `folder ${folder} holds no .md files` })

  const rejected: Array<RejectedFile> = []
  const accepted: Array<{ readonly file: string; readonly article: ImportedArticle }> = []
  const fileOfSlug = new Map<string, string>()
  for (const file of files) {
    const reject = (reason: string) => rejected.push({ file, reason })
    const text = yield* fs.readFileString(path.join(folder, file)).pipe(Effect.result)
    if (text._tag === "Failure") {
      reject(`cannot be read: ${text.failure.message}`)
      continue
    }
    // PostgreSQL text cannot hold one: it would fail the whole import at the database
    if (text.success.includes("\u0000")) {
      reject("holds NUL characters: is it a text file?")
      continue
    }
    const parsed = parseArticleFile(text.success)
    if (typeof parsed === "string") {
      reject(parsed)
      continue
    }
    const published = publishedFlag(parsed.published)
    const decoded = yield* decodeArticle(
      { title: parsed.title, category: parsed.category, body: parsed.body, slug: parsed.slug ?? null },
      { errors: "all" }
    ).pipe(Effect.result)
    const problems = [
      ...(decoded._tag === "Failure" ? [brokenRules(decoded.failure)] : []),
      ...(published === "invalid" ? ["published must be true or false"] : [])
    ]
    if (decoded._tag === "Failure" || published === "invalid") {
      reject(problems.join("; "))
      continue
    }
    const input = decoded.success
    const slug = input.slug ?? (slugWords(input.title) || slugWords(path.basename(file).replace(/\.md$/i, "")))
    if (slug === "") {
      reject("no slug can be derived from its title or file name: give it a slug: in its front matter")
      continue
    }
    const taken = fileOfSlug.get(slug)
    if (taken !== undefined) {
      reject(`its slug ${slug} is also the slug of ${taken}: give one of them another slug: in its front matter`)
      continue
    }
    fileOfSlug.set(slug, file)
    accepted.push({
      file,
      article: {
        title: input.title,
        body: input.body,
        category: input.category,
        slug,
        published: options.publish ?? published
      }
    })
  }
  if (rejected.length > 0) return yield* new InvalidArticleFiles({ files: files.length, rejected })

  const written = yield* articles.importBySlug(projectId, accepted.map(({ article }) => article))
  return written.map((article, index): ImportedFile => ({ file: accepted[index]!.file, ...article }))
})

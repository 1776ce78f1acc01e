import { Effect, FileSystem, Path, Schema } from "effect"
import { CreateArticleInput } from "../Domain/Article.ts"
import { ValidationError } from "../Domain/Errors.ts"
import { Articles } from "./Articles.ts"

/**
 * A Markdown file with a front matter of `key: value` lines (title, category, and optionally
 * slug and published) above the article body.
 */
export const parseArticleFile = (text: string) => {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text)
  if (match === null) return undefined
  const fields: Record<string, string> = {}
  for (const line of match[1]!.split(/\r?\n/)) {
    const pair = /^([A-Za-z_]+)\s*:\s*(.*)$/.exec(line)
    if (pair !== null) fields[pair[1]!.toLowerCase()] = pair[2]!.trim()
  }
  return {
    title: fields.title,
    category: fields.category,
    ...(fields.slug === undefined ? {} : { slug: fields.slug }),
    ...(fields.published === undefined ? {} : { published: fields.published === "true" }),
    body: match[2]!.trim()
  }
}

const decodeArticle = Schema.decodeUnknownEffect(CreateArticleInput)

/**
 * Imports every `.md` file of a folder, in name order; `publish` overrides the files' own flag.
 * The articles table is analyzed afterwards, as autovacuum would, so search plans see them.
 */
export const importFolder = Effect.fn("Articles.importFolder")(function*(
  projectId: string,
  folder: string,
  options: { readonly publish?: boolean | undefined }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const articles = yield* Articles
  const names = (yield* Effect.orDie(fs.readDirectory(folder))).filter((name) => name.endsWith(".md")).sort()
  const imported: Array<{ readonly file: string; readonly id: string; readonly slug: string }> = []
  for (const name of names) {
    const parsed = parseArticleFile(yield* Effect.orDie(fs.readFileString(path.join(folder, name))))
    if (parsed === undefined) {
      return yield* new ValidationError({ message: `${name}: no front matter with title and category` })
    }
    const input = yield* decodeArticle({ ...parsed, published: options.publish ?? parsed.published ?? false }).pipe(
      Effect.mapError((error) => new ValidationError({ message: `${name}: ${error.message.split("\n")[0]}` }))
    )
    const created = yield* articles.create(projectId, input)
    imported.push({ file: name, ...created })
  }
  if (imported.length > 0) yield* articles.analyze
  return imported
})

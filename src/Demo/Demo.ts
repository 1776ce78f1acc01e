import { Effect } from "effect"
import { importFolder } from "../Articles/Import.ts"
import { projectPath } from "../Paths.ts"
import { Projects } from "../Projects/Projects.ts"

const articlesFolder = projectPath("src", "Demo", "articles")

export const demoWidgetKeySetting = "demo_widget_key"

export interface DemoProject {
  readonly projectId: string
  readonly fullKey: string
  readonly widgetKey: string
  readonly articles: number
}

/**
 * A project with a full key, a widget key and a published help centre, so search finds something.
 * The articles go in as an import does, which analyzes the table after: search plans see them at once.
 */
export const seedDemo = Effect.fn("Demo.seed")(function*() {
  const projects = yield* Projects
  const project = yield* projects.create("Demo project")
  const widget = yield* projects.createKey(project.project_id, { name: "demo widget", scope: "widget" })
  // a widget key is public by design (it sits in the source of web pages), so the demo page at /
  // may show it at every start; a full key is never stored
  yield* projects.putSetting(demoWidgetKeySetting, widget.api_key)
  const imported = yield* importFolder(project.project_id, articlesFolder, { publish: true })
  return {
    projectId: project.project_id,
    fullKey: project.api_key,
    widgetKey: widget.api_key,
    articles: imported.length
  } satisfies DemoProject
})

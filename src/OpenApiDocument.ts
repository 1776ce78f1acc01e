
const decodeErrorRef = "#/components/schemas/HttpApiDecodeError"

/**
 * HttpApi documents its built-in decode error on every endpoint, but that body never leaves this
 * service: the envelope middleware answers VALIDATION_ERROR instead. Take it out of the document.
 */
export const withoutDecodeError = (spec: Record<string, any>): Record<string, any> => {
  const document = structuredClone(spec) as any
  for (const path of Object.values<any>(document.paths ?? {})) {
    for (const operation of Object.values<any>(path)) {
      const badRequest = operation?.responses?.["400"]
      const content = badRequest?.content?.["application/json"]
      if (content?.schema?.anyOf === undefined) continue
      const rest = content.schema.anyOf.filter((schema: any) => schema.$ref !== decodeErrorRef)
      if (rest.length === 0) delete operation.responses["400"]
      else {
        content.schema = rest.length === 1 ? rest[0] : { anyOf: rest }
        badRequest.description = "Error envelope, code VALIDATION_ERROR"
      }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete document.components?.schemas?.[name]
  return document
}

/** A visitor the site's backend vouched for: the claims of a verified visitor token. */
export interface VerifiedVisitor {
  /** the site's own id of its user */
  readonly sub: string
  readonly email: string | null
  readonly name: string | null
}

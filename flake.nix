{
  description = "Support ticketing service: a development shell with Node 24, Deno 2 and PostgreSQL";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in {
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_24 pkgs.deno pkgs.postgresql_15 pkgs.redis ];
          shellHook = ''
            echo "npm install && npm start    # the service on embedded PGlite"
            echo "npm test                    # add DATABASE_URL=postgres://... to test PostgreSQL too"
          '';
        };
      });
    };
}

/**
 * The color classes of docs/protocol.md §8 as data: each class is the region of OKLab closer to one of its prototype
 * colors than to any other class's prototype (a Voronoi partition). Moving a boundary means editing a prototype
 * here, not code. Prototypes are sRGB hex so a person can check them against a swatch; several per class
 * shape regions that are not round (e.g. the long "blue" region from cyan-blue to royal blue).
 */
export interface ColorClassPrototypes {
  name: string;
  prototypes: readonly string[];
}

export const COLOR_CLASSES: readonly ColorClassPrototypes[] = [
  { name: 'white', prototypes: ['ffffff', 'f4f4f4'] },
  { name: 'black', prototypes: ['000000', '161616'] },
  { name: 'grey-light', prototypes: ['c8c8c8', 'bebebe', 'd8d8d8'] },
  { name: 'grey', prototypes: ['808080', '9a9a9a', '6e6e6e'] },
  { name: 'grey-dark', prototypes: ['404040', '4f4f4f', '2e2e2e'] },
  { name: 'red-light', prototypes: ['f08080', 'ff7f7f', 'e9967a', 'e06666'] },
  { name: 'red', prototypes: ['ff0000', 'd81e1e', 'c62828', 'dc143c'] },
  { name: 'red-dark', prototypes: ['8b0000', '800000', '6e1010'] },
  { name: 'pink-light', prototypes: ['ffc0cb', 'ffb6c1', 'f8c8dc'] },
  { name: 'pink', prototypes: ['ff69b4', 'ff1493', 'e75480', 'f06ea0'] },
  { name: 'pink-dark', prototypes: ['c71585', 'a0285a', '8b1a50'] },
  { name: 'orange-light', prototypes: ['ffc080', 'ffcc99', 'ffb366'] },
  { name: 'orange', prototypes: ['ff8c00', 'ffa500', 'f57c00', 'ff7518'] },
  { name: 'orange-dark', prototypes: ['cc5500', 'd2691e', 'b85000'] },
  { name: 'green-light', prototypes: ['90ee90', '98fb98', 'a8e4a0'] },
  { name: 'green', prototypes: ['00ff00', '00c000', '228b22', '32cd32', '00a550'] },
  { name: 'green-dark', prototypes: ['006400', '004d00', '1e4d2b', '003319'] },
  { name: 'yellow-light', prototypes: ['ffff99', 'fff68f', 'fff3a0'] },
  { name: 'yellow', prototypes: ['ffff00', 'ffd700', 'f2d14a', 'ffea00'] },
  { name: 'yellow-dark', prototypes: ['b8a000', 'c8b400', 'a08c00'] },
  { name: 'blue-light', prototypes: ['87ceeb', 'add8e6', '87cefa', '9ab8e8', '8ea9d0', 'b0c4de'] },
  { name: 'blue', prototypes: ['0000ff', '1f4e9c', '4169e1', '1e90ff', '0096d6'] },
  { name: 'blue-dark', prototypes: ['00008b', '000080', '191970', '0b2545'] },
  { name: 'violet-light', prototypes: ['dda0dd', 'c8a2c8', 'b19cd9', 'dcc6f0'] },
  { name: 'violet', prototypes: ['8a2be2', '9400d3', '8000ff', '9932cc'] },
  { name: 'violet-dark', prototypes: ['4b0082', '551a8b', '3c1361', '2e1a47'] },
  { name: 'brown-light', prototypes: ['d2b48c', 'deb887', 'c4a484'] },
  { name: 'brown', prototypes: ['8b4513', 'a0522d', '964b00'] },
  { name: 'brown-dark', prototypes: ['5c3317', '3d2314', '654321'] },
];

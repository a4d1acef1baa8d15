/**
 * Public design palettes (hex values as published), for the distinct-color benchmark of issue 16: swatch grids made
 * of shades a designer tells apart (teal from sea green, two blues of one brand).
 */
export const DESIGN_PALETTES: Record<string, readonly string[]> = {
  // flatuicolors.com, the original 20 "Flat UI" colors.
  'flat UI': [
    '1abc9c', '16a085', '2ecc71', '27ae60', '3498db', '2980b9', '9b59b6', '8e44ad', '34495e', '2c3e50',
    'f1c40f', 'f39c12', 'e67e22', 'd35400', 'e74c3c', 'c0392b', 'ecf0f1', 'bdc3c7', '95a5a6', '7f8c8d',
  ],
  // Material Design 2014 palette, 500 and 700 shades.
  Material: [
    'f44336', 'e91e63', '9c27b0', '673ab7', '3f51b5', '2196f3', '03a9f4', '00bcd4', '009688', '4caf50',
    '8bc34a', 'cddc39', 'ffeb3b', 'ffc107', 'ff9800', 'ff5722', '795548', '9e9e9e', '607d8b',
    'd32f2f', 'c2185b', '7b1fa2', '512da8', '303f9f', '1976d2', '0288d1', '0097a7', '00796b', '388e3c',
    '689f38', 'afb42b', 'fbc02d', 'ffa000', 'f57c00', 'e64a19', '5d4037', '616161', '455a64',
  ],
  // Tailwind CSS v3 default colors, 500 and 600 shades.
  Tailwind: [
    'ef4444', 'dc2626', 'f97316', 'ea580c', 'f59e0b', 'd97706', 'eab308', 'ca8a04', '84cc16', '65a30d',
    '22c55e', '16a34a', '10b981', '059669', '14b8a6', '0d9488', '06b6d4', '0891b2', '0ea5e9', '0284c7',
    '3b82f6', '2563eb', '6366f1', '4f46e5', '8b5cf6', '7c3aed', 'a855f7', '9333ea', 'd946ef', 'c026d3',
    'ec4899', 'db2777', 'f43f5e', 'e11d48', '64748b', '475569',
  ],
  // CSS named colors (CSS Color Module Level 4), a set with many near neighbours.
  'CSS named': [
    '008080', '2e8b57', '3cb371', '20b2aa', '008b8b', '4682b4', '4169e1', '1e90ff', '6495ed', '000080',
    'ff6347', 'ff7f50', 'fa8072', 'dc143c', 'b22222', 'ffd700', 'ffa500', 'ff8c00', 'f0e68c', '808000',
    '6b8e23', '228b22', '32cd32', 'da70d6', 'dda0dd', '800080', '4b0082', '708090', 'a0522d', 'd2691e',
    'cd853f', 'd2b48c', 'ffffff', '000000', 'c0c0c0', '808080',
  ],
};

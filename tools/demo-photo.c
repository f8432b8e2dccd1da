/* demo-photo.c: draws a photo-like landscape PNG (sky, clouds, mountains, lake, trees, meadow) for the demo's blur and spectrum pictures. */
#include <png.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W 640
#define H 426

typedef struct
{
  double r, g, b;
} Rgb;

/* ---- deterministic value noise ------------------------------------------ */

static double
hash2 (int x, int y)
{
  uint32_t h = (uint32_t) x * 374761393u + (uint32_t) y * 668265263u;
  h = (h ^ (h >> 13)) * 1274126177u;
  return ((h ^ (h >> 16)) & 0xffffff) / (double) 0xffffff;
}

static double
smooth (double t)
{
  return t * t * (3.0 - 2.0 * t);
}

static double
noise (double x, double y)
{
  int xi = (int) floor (x), yi = (int) floor (y);
  double fx = smooth (x - xi), fy = smooth (y - yi);
  double a = hash2 (xi, yi), b = hash2 (xi + 1, yi);
  double c = hash2 (xi, yi + 1), d = hash2 (xi + 1, yi + 1);
  return (a + (b - a) * fx) + ((c + (d - c) * fx) - (a + (b - a) * fx)) * fy;
}

/* Sum of octaves, 0..1: the rough detail of natural surfaces. */
static double
fbm (double x, double y, int octaves)
{
  double sum = 0.0, amp = 0.5, norm = 0.0;
  for (int o = 0; o < octaves; o++) {
    sum += amp * noise (x, y);
    norm += amp;
    x = x * 2.03 + 17.1;
    y = y * 2.03 + 5.3;
    amp *= 0.5;
  }
  return sum / norm;
}

static Rgb
mix (Rgb a, Rgb b, double t)
{
  Rgb c = { a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t,
    a.b + (b.b - a.b) * t
  };
  return c;
}

static Rgb
scale (Rgb a, double s)
{
  Rgb c = { a.r * s, a.g * s, a.b * s };
  return c;
}

/* ---- the scene ---------------------------------------------------------- */

static const double horizon = 0.60 * H; /* the lake's far shore */
static const double shore = 0.78 * H;   /* the meadow's edge */

static double
mountain_top (double x)
{
  /* stretched contrast: a few peaks and deep saddles, not a flat ridge */
  double t = (fbm (x / 190.0, 3.7, 6) - 0.3) / 0.4;
  return 0.20 * H + 0.30 * H * fmin (fmax (t, 0.0), 1.0);
}

static double
hill_top (double x)
{
  return 0.52 * H + 0.06 * H * fbm (x / 70.0, 9.1, 4);
}

static Rgb
sky (double x, double y)
{
  Rgb top = { 35, 85, 165 }, low = { 185, 210, 232 }, sun = { 255, 247, 225 };
  Rgb c = mix (top, low, pow (y / horizon, 1.4));
  double dx = x - 0.74 * W, dy = y - 0.17 * H, d = sqrt (dx * dx + dy * dy);
  double cloud;

  c = mix (c, sun, d < 16.0 ? 1.0 : 0.55 * exp (-(d - 16.0) / 45.0));
  /* flattened noise: clouds stretch along the horizon */
  cloud = fbm (x / 110.0, y / 28.0, 6);
  cloud = fmin (fmax ((cloud - 0.52) / 0.18, 0.0), 1.0);
  {
    Rgb white = { 248, 248, 250 }, grey = { 170, 176, 190 };
    Rgb cc = mix (white, grey, fbm (x / 30.0, y / 12.0 + 40.0, 3));
    c = mix (c, cc, cloud * (1.0 - 0.5 * y / horizon));
  }
  return c;
}

static Rgb
land (double x, double y)
{
  double mt = mountain_top (x), ht = hill_top (x);

  if (y < mt)
    return sky (x, y);
  if (y < ht) {
    /* far mountains: rock in blue haze, snow near the highest tops */
    Rgb rock = { 95, 105, 125 }, haze = { 160, 178, 205 }, snow = { 240,
      244, 250
    };
    double t = fbm (x / 12.0, y / 12.0, 4);
    Rgb c = mix (scale (rock, 0.75 + 0.5 * t), haze, 0.45);
    /* snow on the high tops, deeper on higher ones, streaked by gullies;
     * the sun side (the right-hand slopes) is brighter */
    double slope = mountain_top (x - 2.0) - mountain_top (x + 2.0);
    double fade = exp (-(y - mt) / 35.0);
    c = scale (c, 1.0 + fade * fmin (fmax (slope * 0.04, -0.25), 0.25));
    if (y - mt < (0.34 * H - mt) * (0.3 + 0.9 * fbm (x / 6.0, y / 6.0, 3)))
      c = mix (c, scale (snow, 1.0 + fade * fmin (slope * 0.03, 0.0)), 0.9);
    return c;
  }
  {
    /* wooded hills, darker towards the water */
    Rgb dark = { 30, 62, 34 }, light = { 70, 112, 52 };
    double t = fbm (x / 5.0, y / 5.0, 4);
    return mix (light, dark, 0.4 * t + 0.6 * (y - ht) / (horizon - ht + 1));
  }
}

static Rgb
pixel (int xi, int yi)
{
  double x = xi + 0.5, y = yi + 0.5;

  if (y < horizon)
    return land (x, y);
  if (y < shore) {
    /* the lake mirrors what is above its far shore, broken by ripples */
    double ripple = (fbm (x / 40.0, y * 1.6, 3) - 0.5) * 6.0;
    double my = 2 * horizon - y + ripple * (y - horizon) / (shore - horizon);
    Rgb water = { 30, 60, 90 };
    Rgb c = land (x + ripple * 2.0, fmax (my, 0.0));
    return mix (scale (c, 0.8), water, 0.25 + 0.3 * (y - horizon) /
        (shore - horizon));
  }
  {
    /* meadow: fine, streaky grass, lighter far away, and flowers */
    Rgb near = { 48, 95, 28 }, far = { 120, 150, 60 };
    double depth = (y - shore) / (H - shore);
    double grass = fbm (x / 1.5, y / 6.0, 3);
    Rgb c = scale (mix (far, near, depth), 0.7 + 0.6 * grass);
    double f = hash2 (xi / 3, yi / 3);
    if (f > 0.993) {
      Rgb red = { 220, 40, 40 }, yellow = { 240, 210, 40 };
      c = hash2 (xi / 3 + 7, yi / 3) > 0.5 ? red : yellow;
    }
    return c;
  }
}

/* Conifers along the shore, drawn over the scene: hard dark edges. */
static void
draw_trees (Rgb * img)
{
  for (int t = 0; t < 26; t++) {
    double cx = hash2 (t, 99) * W;
    double base = shore + 4.0 + hash2 (t, 7) * 10.0;
    double height = 50.0 + hash2 (t, 3) * 70.0;
    double half = height * 0.22;

    for (int y = (int) (base - height); y < (int) base + 6 && y < H; y++) {
      for (int x = (int) (cx - half - 2); x <= (int) (cx + half + 2); x++) {
        double v = (y - (base - height)) / height;      /* 0 top, 1 base */
        double w = half * v * (0.85 + 0.15 * sin (v * 40.0));
        Rgb needles = { 18, 48, 25 }, trunk = { 60, 40, 25 };
        if (x < 0 || x >= W || y < 0)
          continue;
        if (y >= base && fabs (x - cx) < 2.0)
          img[y * W + x] = trunk;
        else if (y < base && fabs (x - cx) < w)
          img[y * W + x] = scale (needles, 0.8 + 0.5 * fbm (x / 2.0,
                  y / 2.0, 2));
      }
    }
  }
}

int
main (int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : "photo.png";
  Rgb *img = malloc (sizeof (Rgb) * W * H);
  png_bytep row = malloc (3 * W);
  png_structp png;
  png_infop info;
  FILE *f;

  if (argc > 2 || !img || !row) {
    fprintf (stderr, "usage: demo-photo [OUT.png]\n");
    return 2;
  }
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      img[y * W + x] = pixel (x, y);
  draw_trees (img);

  f = fopen (path, "wb");
  if (!f) {
    perror (path);
    return 1;
  }
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png_create_info_struct (png);
  if (setjmp (png_jmpbuf (png))) {
    fprintf (stderr, "%s: PNG write failed\n", path);
    return 1;
  }
  png_init_io (png, f);
  png_set_IHDR (png, info, W, H, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
      PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  for (int y = 0; y < H; y++) {
    for (int x = 0; x < W; x++) {
      Rgb c = img[y * W + x];
      row[3 * x] = (png_byte) fmin (fmax (c.r, 0.0), 255.0);
      row[3 * x + 1] = (png_byte) fmin (fmax (c.g, 0.0), 255.0);
      row[3 * x + 2] = (png_byte) fmin (fmax (c.b, 0.0), 255.0);
    }
    png_write_row (png, row);
  }
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  fclose (f);
  free (row);
  free (img);
  return 0;
}
